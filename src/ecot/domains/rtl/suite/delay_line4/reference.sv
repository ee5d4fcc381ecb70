module delay_line4 (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    input  wire [7:0] din,
    output reg  [7:0] q1,
    output reg  [7:0] q2,
    output reg  [7:0] q3,
    output reg  [7:0] q4
);
    always @(posedge clk) begin
        if (rst) begin
            q1 <= 8'h00;
            q2 <= 8'h00;
            q3 <= 8'h00;
            q4 <= 8'h00;
        end else if (en) begin
            q1 <= din;
            q2 <= q1;
            q3 <= q2;
            q4 <= q3;
        end
    end
endmodule
