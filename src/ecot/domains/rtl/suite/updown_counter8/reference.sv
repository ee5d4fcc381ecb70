module updown_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       load,
    input  wire [7:0] d,
    input  wire       en,
    input  wire       up,
    output reg  [7:0] q
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            q <= 8'd0;
        else if (load)
            q <= d;
        else if (en)
            q <= up ? q + 8'd1 : q - 8'd1;
    end
endmodule
