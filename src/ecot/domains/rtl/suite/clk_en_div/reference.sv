module clk_en_div (
    input  wire       clk,
    input  wire       rst,
    input  wire [7:0] div,
    output reg  [7:0] cnt,
    output wire       tick
);
    wire [7:0] lim = (div == 8'd0) ? 8'd0 : div - 8'd1;

    assign tick = (cnt >= lim);

    always @(posedge clk) begin
        if (rst || tick)
            cnt <= 8'd0;
        else
            cnt <= cnt + 8'd1;
    end
endmodule
