module bcd_counter (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    output reg  [3:0] q,
    output wire       carry
);
    always @(posedge clk) begin
        if (rst)
            q <= 4'd0;
        else if (en) begin
            if (q == 4'd9)
                q <= 4'd0;
            else
                q <= q + 4'd1;
        end
    end

    assign carry = en && (q == 4'd9);
endmodule
